import httpx
from rest_framework.response import Response
from rest_framework.views import APIView


class PaymentView(APIView):
    def post(self, request):
        key = request.headers.get("Idempotency_Key")  # expect: misspelled-idempotency-header
        if key is None:
            return Response({"detail": "missing key"}, status=400)
        payment = create_payment(request.data, key)
        return Response({"id": payment.id}, status=201)


def forward_to_ledger(entry, key):
    return httpx.post(
        "https://ledger.internal/entries",
        json=entry,
        headers={"Idempotency_Key": key},  # expect: misspelled-idempotency-header
    )
