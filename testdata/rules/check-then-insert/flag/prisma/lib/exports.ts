import { prisma } from "@/lib/prisma";

export async function findExportByKey(workspaceId: string, idempotencyKey: string) {
  return prisma.exportRun.findFirst({
    where: { workspaceId, idempotencyKey },
  });
}

export async function startExport(id: string) {
  await fetch(`${process.env.EXPORTER_URL}/exports/${id}`, { method: "POST" });
}
