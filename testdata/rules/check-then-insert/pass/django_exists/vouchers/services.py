from vouchers.models import Redemption


def redeem(shop, code, amount):
    """A resubmitted checkout finds its redemption and grants nothing twice."""
    if Redemption.objects.filter(shop=shop, voucher_code=code).exists():
        return False
    Redemption.objects.create(shop=shop, voucher_code=code, amount=amount)
    return True
