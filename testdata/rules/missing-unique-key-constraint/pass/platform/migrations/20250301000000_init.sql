-- Task runs are deduplicated by their key per environment and task; the
-- deliveries and the partitioned event stream only copy the run's key.
CREATE TABLE "TaskRun" (
    "id"                   TEXT NOT NULL,
    "runtimeEnvironmentId" TEXT NOT NULL,
    "taskIdentifier"       TEXT NOT NULL,
    "idempotencyKey"       TEXT,
    "createdAt"            TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "TaskRun_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "TaskRun_runtimeEnvironmentId_taskIdentifier_idempotencyKey_key"
    ON "TaskRun"("runtimeEnvironmentId", "taskIdentifier", "idempotencyKey");

CREATE TABLE "OutboundDelivery" (
    "id"             TEXT NOT NULL,
    "endpointId"     TEXT NOT NULL,
    "idempotencyKey" TEXT NOT NULL,
    "attempt"        INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "OutboundDelivery_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "RunEventPartitioned" (
    "id"             TEXT NOT NULL,
    "runId"          TEXT NOT NULL,
    "idempotencyKey" TEXT,
    "createdAt"      TIMESTAMP(3) NOT NULL
) PARTITION BY RANGE ("createdAt");
