import { createClient } from "redis";

// Webhook-free sessions for the dashboard.
export const sessions = createClient({ url: process.env.REDIS_URL });
