import httpx
from rest_framework.response import Response
from rest_framework.views import APIView


class PaymentView(APIView):
    def post(self, request):
        # Django's WSGI environ spells every header `HTTP_` and upper case,
        # with `-` as `_`: this is the `Idempotency-Key` header.
        key = request.META.get("HTTP_IDEMPOTENCY_KEY")
        if key is None:
            key = request.headers.get("Idempotency-Key")
        payment = create_payment(request.data, idempotency_key=key)
        return Response({"id": payment.id}, status=201)


def forward_to_ledger(entry, key):
    return httpx.post(
        "https://ledger.internal/entries",
        json=entry,
        headers={"Idempotency-Key": key},
    )
