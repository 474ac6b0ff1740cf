from giftcards.abstract_models import AbstractGiftCard
from giftcards.registry import registered

if not registered("giftcards", "GiftCard"):

    class GiftCard(AbstractGiftCard):
        pass
