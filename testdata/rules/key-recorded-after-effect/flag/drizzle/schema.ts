import { pgTable, serial, text, timestamp } from "drizzle-orm/pg-core";

export const processedEvents = pgTable("processed_events", {
  id: serial("id").primaryKey(),
  eventId: text("event_id").notNull().unique(),
  refundId: text("refund_id"),
  createdAt: timestamp("created_at").defaultNow().notNull(),
});
