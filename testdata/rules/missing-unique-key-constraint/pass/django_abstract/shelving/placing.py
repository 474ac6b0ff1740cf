from shelving.models import Placement


def place(product, shelf, position):
    """Placing a product twice on one shelf moves it."""
    placement, _ = Placement.objects.get_or_create(
        product=product, shelf=shelf, defaults={"position": position}
    )
    return placement
