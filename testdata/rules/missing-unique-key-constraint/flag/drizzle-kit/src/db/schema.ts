import { pgTable, serial, text, timestamp } from "drizzle-orm/pg-core";

// The schema and the SQL drizzle-kit generated from it describe one table:
// one finding, on the schema.
export const stripeWebhookEvents = pgTable("stripe_webhook_events", { // expect: missing-unique-key-constraint
  id: serial("id").primaryKey(),
  eventId: text("event_id").notNull(),
  receivedAt: timestamp("received_at").defaultNow().notNull(),
});
