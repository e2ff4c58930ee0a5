// SecureSMS module — see docs/.
