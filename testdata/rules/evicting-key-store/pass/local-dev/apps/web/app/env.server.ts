import { z } from "zod";

export const Env = z.object({
  REDIS_HOST: z.string(),
  REDIS_PORT: z.coerce.number().default(6379),
  // Trigger claims go to their own Redis when one is configured.
  RUN_IDEMPOTENCY_REDIS_HOST: z
    .string()
    .optional()
    .transform((v) => v ?? process.env.REDIS_HOST),
});

export const env = Env.parse(process.env);
