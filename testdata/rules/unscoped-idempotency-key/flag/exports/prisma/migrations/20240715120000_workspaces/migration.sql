-- Projects move under workspaces: every export task records its workspace
-- too. (This migration holds no word of the prefilter: it is read because
-- it alters a table that carries a key, and the finding above names the
-- new scope column as well.)
-- AlterTable
ALTER TABLE "ExportTask" ADD COLUMN "workspaceId" TEXT NOT NULL;

-- CreateTable
CREATE TABLE "Workspace" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,

    CONSTRAINT "Workspace_pkey" PRIMARY KEY ("id")
);
