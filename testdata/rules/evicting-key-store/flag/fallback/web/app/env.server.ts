import { z } from "zod";

// Settings of the web app, read once at boot.
export const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  REDIS_HOST: z.string().default("localhost"),
  REDIS_PORT: z.coerce.number().default(6379),

  // Request idempotency claims can live in a Redis of their own; unless one
  // is configured they share the main instance.
  IDEMPOTENCY_REDIS_HOST: z
    .string()
    .optional()
    .transform((v) => v ?? process.env.REDIS_HOST),
  IDEMPOTENCY_REDIS_PORT: z.coerce
    .number()
    .optional()
    .transform((v) => v ?? Number(process.env.REDIS_PORT ?? 6379)),
});

export const env = EnvSchema.parse(process.env);
