import { model } from "@medusajs/framework/utils"

// A Medusa data model: the provider's event id is only indexed, so a
// redelivered webhook is stored (and handled) twice.
export const WebhookEvent = model.define("webhook_event", { // expect: missing-unique-key-constraint
  id: model.id({ prefix: "whev" }).primaryKey(),
  event_id: model.text().index(),
  provider: model.text(),
  payload: model.json().nullable(),
})
