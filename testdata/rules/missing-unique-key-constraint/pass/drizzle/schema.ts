import { pgTable, pgSchema, serial, text, uuid, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

export const processedEvents = pgTable("processed_events", {
  id: serial("id").primaryKey(),
  eventId: text("event_id").notNull().unique(),
  createdAt: timestamp("created_at").defaultNow().notNull(),
});

export const billing = pgSchema("billing");

// The older object form of the third argument.
export const webhookDeliveries = billing.table(
  "webhook_deliveries",
  {
    id: uuid("id").defaultRandom().primaryKey(),
    provider: text("provider").notNull(),
    eventId: text("event_id").notNull(),
  },
  (t) => ({
    byEvent: uniqueIndex("webhook_deliveries_provider_event_key").on(t.provider, t.eventId),
  }),
);
