from giftcards.registry import load_model

GiftCard = load_model("giftcards", "GiftCard")


class CardIssuer:
    def issue(self, code, amount):
        """A resubmitted purchase must not sell the same printed code twice."""
        if GiftCard._default_manager.filter(code=code).exists():  # expect: check-then-insert
            raise ValueError("card already issued")
        return self.make_card(code, amount)

    def make_card(self, code, amount):
        card = GiftCard(code=code, balance=amount)
        card.save()
        return card
