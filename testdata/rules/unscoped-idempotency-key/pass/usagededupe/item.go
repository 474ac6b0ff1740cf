package usagededupe

import "fmt"

// Item is one usage event to deduplicate, sent by a tenant's SDK.
type Item struct {
	Namespace string
	Source    string
	ID        string
}

// Key is unique per tenant.
func (i Item) Key() string {
	return fmt.Sprintf("%s-%s-%s", i.Namespace, i.Source, i.ID)
}
