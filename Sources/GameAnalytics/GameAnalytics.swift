// GameAnalytics module — see docs/.
