import { prisma } from "@/lib/prisma";
import { findExportByKey, startExport } from "@/lib/exports";

// A retried request finds the run the first one started, unless both
// arrive together: then both find nothing, and both start an export.
export async function POST(req: Request) {
  const workspaceId = req.headers.get("x-workspace-id") ?? "";
  const idempotencyKey = req.headers.get("idempotency-key");
  const body = await req.json();

  if (idempotencyKey) {
    const previous = await findExportByKey(workspaceId, idempotencyKey);
    if (previous) {
      return Response.json(previous);
    }
  }

  const run = await prisma.exportRun.create({ // expect: check-then-insert
    data: { workspaceId, idempotencyKey, format: body.format },
  });
  await startExport(run.id);
  return Response.json(run, { status: 201 });
}
