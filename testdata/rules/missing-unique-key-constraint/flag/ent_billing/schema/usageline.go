package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// UsageLine is one metered line of an invoice; a re-run of the invoice sync
// finds its line again by source_reference.
type UsageLine struct {
	ent.Schema
}

func (UsageLine) Fields() []ent.Field {
	return []ent.Field{
		field.String("id"),
		field.String("namespace"),
		field.String("invoice_id"),
		field.String("source_reference").Optional().Nillable(),
		field.Time("deleted_at").Optional().Nillable(),
	}
}

// The unique index the migration made is declared plain here: the next
// `atlas migrate diff` drops its uniqueness.
func (UsageLine) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("namespace", "invoice_id", "source_reference"). // expect: missing-unique-key-constraint
			Annotations(entsql.IndexWhere("source_reference IS NOT NULL AND deleted_at IS NULL")),
	}
}
