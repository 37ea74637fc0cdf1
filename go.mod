module pplab

go 1.26
