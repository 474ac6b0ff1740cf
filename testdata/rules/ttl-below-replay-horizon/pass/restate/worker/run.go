package worker

import (
	"time"

	restate "github.com/restatedev/sdk-go"
	"github.com/restatedev/sdk-go/server"
)

// The month's close keeps its idempotency key forty days, past the
// thirty days Stripe lets the invoice event be fetched again, and a margin.
func bind(srv *server.Restate, svc *MonthService) {
	srv.Bind(NewMonthServiceServer(svc).
		ConfigureHandler("CloseMonthInvoice", restate.WithIdempotencyRetention(40*24*time.Hour)))
}

// A handler no code sends a key to keeps the engine's own keys: not judged.
func bindReports(srv *server.Restate, svc *ReportService) {
	srv.Bind(NewReportServiceServer(svc).
		ConfigureHandler("BuildReport", restate.WithIdempotencyRetention(time.Minute)))
}
