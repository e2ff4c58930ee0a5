// Vault module — see docs/.
