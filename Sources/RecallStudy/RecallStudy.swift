// RecallStudy module — see docs/.
