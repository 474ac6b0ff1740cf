module example.com/ledger

go 1.22

require (
	github.com/go-redsync/redsync/v4 v4.13.0
	github.com/redis/go-redis/v9 v9.5.1
)
