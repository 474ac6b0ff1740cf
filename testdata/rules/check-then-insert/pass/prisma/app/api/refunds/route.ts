import { prisma } from "@/lib/prisma";

// A refund is recorded per charge in one statement: the upsert decides.
export async function POST(req: Request) {
  const { chargeId, amount } = await req.json();
  const known = await prisma.refund.findUnique({ where: { chargeId } });
  if (known?.status === "succeeded") {
    return Response.json(known);
  }
  const refund = await prisma.refund.upsert({
    where: { chargeId },
    create: { chargeId, amount, status: "pending" },
    update: {},
  });
  return Response.json(refund);
}
