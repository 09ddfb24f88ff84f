module dumpclock

go 1.26
