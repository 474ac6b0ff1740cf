package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// CreditGrant is a customer's purchase of credits; `key` is the caller's
// idempotency key for the purchase request.
type CreditGrant struct {
	ent.Schema
}

func (CreditGrant) Fields() []ent.Field {
	return []ent.Field{
		field.String("id"),
		field.String("namespace"),
		field.String("customer_id"),
		field.String("key").Optional().Nillable(),
		field.Time("deleted_at").Optional().Nillable(),
	}
}

// Rescoped in the schema to the key alone: the next migration replaces
// the per-customer guard.
func (CreditGrant) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("key"). // expect: unscoped-idempotency-key
			Annotations(entsql.IndexWhere("key IS NOT NULL AND deleted_at IS NULL")).
			Unique(),
	}
}
