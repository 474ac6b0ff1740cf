CREATE TABLE "credit_topups" (
  "id" character(26) NOT NULL,
  "namespace" character varying NOT NULL,
  "customer_id" character(26) NOT NULL,
  "key" character varying NULL,
  "amount" numeric NOT NULL,
  "deleted_at" timestamptz NULL,
  PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "credittopup_namespace_customer_id_key" ON "credit_topups" ("namespace", "customer_id", "key") WHERE ((key IS NOT NULL) AND (deleted_at IS NULL));
