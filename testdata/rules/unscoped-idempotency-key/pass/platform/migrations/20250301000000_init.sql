-- A wait point is unique per environment; `userProvidedIdempotencyKey` is a
-- flag (did the caller pass its own key?), not an owner, and the project
-- is a coarser owner than the environment that already scopes the key.
CREATE TABLE "WaitPoint" (
    "id"                         TEXT NOT NULL,
    "projectId"                  TEXT NOT NULL,
    "environmentId"              TEXT NOT NULL,
    "idempotencyKey"             TEXT NOT NULL,
    "userProvidedIdempotencyKey" BOOLEAN NOT NULL DEFAULT false,
    "idempotencyKeyExpiresAt"    TIMESTAMP(3),
    CONSTRAINT "WaitPoint_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "WaitPoint_environmentId_idempotencyKey_key"
    ON "WaitPoint"("environmentId", "idempotencyKey");

CREATE TABLE "ApiIdempotencyKey" (
    "key"            TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "runtimeEnvironmentId" TEXT NOT NULL,
    "responseBody"   JSONB,
    "requestHash"    TEXT NOT NULL,
    CONSTRAINT "ApiIdempotencyKey_pkey" PRIMARY KEY ("runtimeEnvironmentId", "key")
);
