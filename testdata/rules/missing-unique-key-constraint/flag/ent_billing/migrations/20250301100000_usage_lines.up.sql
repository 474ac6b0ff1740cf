-- Written by `atlas migrate diff` from the ent schema in ../schema.
CREATE TABLE "usage_lines" (
  "id" character(26) NOT NULL,
  "namespace" character varying NOT NULL,
  "invoice_id" character(26) NOT NULL,
  "source_reference" character varying NULL,
  "deleted_at" timestamptz NULL,
  PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "usageline_namespace_invoice_id_source_reference" ON "usage_lines" ("namespace", "invoice_id", "source_reference") WHERE ((source_reference IS NOT NULL) AND (deleted_at IS NULL));
