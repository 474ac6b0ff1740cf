package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// CreditTopup keeps its idempotency key unique per customer in a
// namespace, as its migration does.
type CreditTopup struct {
	ent.Schema
}

func (CreditTopup) Fields() []ent.Field {
	return []ent.Field{
		field.String("id"),
		field.String("namespace"),
		field.String("customer_id"),
		field.String("key").Optional().Nillable(),
		field.Time("deleted_at").Optional().Nillable(),
	}
}

func (CreditTopup) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("namespace", "customer_id", "key").
			Annotations(entsql.IndexWhere("key IS NOT NULL AND deleted_at IS NULL")).
			Unique(),
	}
}
