import { model } from "@medusajs/framework/utils"

// `.unique()` on the key column: Medusa creates a unique index for it.
export const Delivery = model.define("delivery", {
  id: model.id({ prefix: "dlv" }).primaryKey(),
  recipient: model.text(),
  idempotency_key: model.text().unique().nullable(),
})

// The key unique within a store, through `.indexes(..)` with Medusa's
// soft-delete filter.
export const Payout = model
  .define({ name: "Payout", tableName: "payout" }, {
    id: model.id({ prefix: "po" }).primaryKey(),
    store_id: model.text(),
    idempotency_key: model.text(),
    amount: model.bigNumber(),
  })
  .indexes([
    { on: ["store_id", "idempotency_key"], unique: true, where: "deleted_at IS NULL" },
  ])
