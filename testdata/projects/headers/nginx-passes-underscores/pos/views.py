from django.http import JsonResponse

from .models import Sale


def create_sale(request):
    key = request.headers.get("Idempotency_Key")
    if not key:
        return JsonResponse({"error": "missing idempotency key"}, status=400)
    sale, created = Sale.objects.get_or_create(idempotency_key=key, defaults={"amount": 0})
    return JsonResponse({"id": sale.id, "replayed": not created})
