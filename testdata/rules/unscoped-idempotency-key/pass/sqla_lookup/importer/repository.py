from sqlalchemy import select

from importer.models import ImportedContact


class ImportedContactRepository:
    def __init__(self, session):
        self.session = session

    async def by_source(self, workspace_id, source, source_ref):
        return await self.session.scalar(
            select(ImportedContact).where(
                ImportedContact.workspace_id == workspace_id,
                ImportedContact.source == source,
                ImportedContact.source_ref == source_ref,
            )
        )

    async def import_once(self, workspace_id, record):
        known = await self.by_source(workspace_id, record.source, record.ref)
        if known is not None:
            return known
        self.session.add(
            ImportedContact(
                workspace_id=workspace_id,
                source=record.source,
                source_ref=record.ref,
                email=record.email,
            )
        )
