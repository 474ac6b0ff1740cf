// Queues a workflow run per completed response; a duplicate enqueue is
// found by its key.
import { prisma } from "@/lib/prisma";

export async function queueRun(workflowId: string, response: { id: string }) {
  try {
    return await prisma.workflowRun.create({
      data: { workflowId, idempotencyKey: response.id },
    });
  } catch {
    return prisma.workflowRun.findUnique({
      where: { workflowId_idempotencyKey: { workflowId, idempotencyKey: response.id } },
    });
  }
}
