package usagededupe

import "fmt"

// Item is one usage event to deduplicate, sent by a tenant's SDK.
type Item struct {
	Namespace string
	Source    string
	ID        string
}

// Key leaves the tenant out: two tenants' events with the same source and
// id share one dedupe entry.
func (i Item) Key() string {
	return fmt.Sprintf("%s-%s", i.Source, i.ID) // expect: unscoped-idempotency-key
}
