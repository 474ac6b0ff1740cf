from sqlalchemy import select

from catalog.models import CopiedListing


class CopiedListingRepository:
    def __init__(self, session):
        self.session = session

    async def find_copy(self, tenant_id, origin_kind, origin_ref):
        statement = select(CopiedListing).where(
            CopiedListing.tenant_id == tenant_id,
            CopiedListing.origin_kind == origin_kind,
            CopiedListing.origin_ref == origin_ref,
        )
        return (await self.session.execute(statement)).scalar_one_or_none()

    async def copy_once(self, tenant_id, listing):
        """A rerun of the copy keeps the listing it copied before."""
        found = await self.find_copy(tenant_id, listing.kind, listing.ref)
        if found is not None:
            return found
        return await self.create(
            CopiedListing(
                tenant_id=tenant_id,
                origin_kind=listing.kind,
                origin_ref=listing.ref,
                title=listing.title,
            )
        )

    async def create(self, row):
        self.session.add(row)
        await self.session.flush()
        return row
