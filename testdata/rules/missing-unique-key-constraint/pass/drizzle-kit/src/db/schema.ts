import { pgTable, serial, text, timestamp } from "drizzle-orm/pg-core";

// The schema declares no guard, but the migration the database ran adds
// one by hand: the database refuses the second delivery.
export const stripeWebhookEvents = pgTable("stripe_webhook_events", {
  id: serial("id").primaryKey(),
  eventId: text("event_id").notNull(),
  receivedAt: timestamp("received_at").defaultNow().notNull(),
});
