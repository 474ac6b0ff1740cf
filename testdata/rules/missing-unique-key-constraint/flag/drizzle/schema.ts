import { pgTable, serial, text, jsonb, timestamp, index } from "drizzle-orm/pg-core";

// Deliveries are looked up by `event_id`, but only a plain index covers
// it: two deliveries of the same event both insert.
export const processedEvents = pgTable(
  "processed_events", // expect: missing-unique-key-constraint
  {
    id: serial("id").primaryKey(),
    eventId: text("event_id").notNull(),
    payload: jsonb("payload"),
    createdAt: timestamp("created_at").defaultNow().notNull(),
  },
  (t) => [index("processed_events_event_idx").on(t.eventId)],
);
