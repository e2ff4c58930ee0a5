// Experiences module — see docs/.
