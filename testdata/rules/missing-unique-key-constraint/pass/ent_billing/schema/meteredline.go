package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// MeteredLine keeps the unique index its migration made: schema and
// migrations agree.
type MeteredLine struct {
	ent.Schema
}

func (MeteredLine) Fields() []ent.Field {
	return []ent.Field{
		field.String("id"),
		field.String("namespace"),
		field.String("invoice_id"),
		field.String("source_reference").Optional().Nillable(),
		field.Time("deleted_at").Optional().Nillable(),
	}
}

func (MeteredLine) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("namespace", "invoice_id").StorageKey("meteredline_ns_invoice"),
		index.Fields("namespace", "invoice_id", "source_reference").
			Annotations(entsql.IndexWhere("source_reference IS NOT NULL AND deleted_at IS NULL")).
			Unique(),
	}
}
