package worker

import (
	"time"

	restate "github.com/restatedev/sdk-go"
	"github.com/restatedev/sdk-go/server"
)

// The month's close keeps its idempotency key ten minutes, while the
// invoice webhook that sends the key is redelivered for days.
func bind(srv *server.Restate, svc *MonthService) {
	srv.Bind(NewMonthServiceServer(svc).
		ConfigureHandler("CloseMonthInvoice", restate.WithIdempotencyRetention(10*time.Minute))) // expect: ttl-below-replay-horizon
}
