import { prisma } from "@/lib/prisma";

// Duplicating a template reads the source row by its id: no key is looked up.
export async function POST(req: Request) {
  const { sourceId } = await req.json();
  const source = await prisma.template.findUnique({ where: { id: sourceId } });
  if (!source) {
    return new Response("not found", { status: 404 });
  }
  const copy = await prisma.template.create({
    data: { name: `${source.name} (copy)`, body: source.body },
  });
  return Response.json(copy, { status: 201 });
}
