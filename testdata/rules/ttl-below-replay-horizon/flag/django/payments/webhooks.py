import json
from datetime import timedelta

import redis
import stripe
from django.conf import settings
from django.core.cache import cache
from django.http import HttpResponse
from django.views.decorators.csrf import csrf_exempt

from .fulfilment import fulfil_checkout, record_payout

DEDUP_WINDOW = timedelta(hours=12)  # expect: ttl-below-replay-horizon
r = redis.Redis.from_url(settings.REDIS_URL)


@csrf_exempt
def stripe_webhook(request):
    try:
        event = stripe.Webhook.construct_event(
            request.body, request.META["HTTP_STRIPE_SIGNATURE"], settings.STRIPE_WEBHOOK_SECRET
        )
    except (ValueError, stripe.error.SignatureVerificationError):
        return HttpResponse(status=400)

    if not cache.add(f"stripe:evt:{event.id}", 1, timeout=60 * 60 * 24):  # expect: ttl-below-replay-horizon
        return HttpResponse(status=200)
    if event.type == "checkout.session.completed":
        fulfil_checkout(event.data.object)
    return HttpResponse(status=200)


@csrf_exempt
def stripe_payout_webhook(request):
    event = stripe.Webhook.construct_event(
        request.body, request.headers.get("Stripe-Signature"), settings.STRIPE_CONNECT_SECRET
    )
    key = f"stripe:payout-event:{event['id']}"
    claimed = r.set(key, "1", ex=DEDUP_WINDOW, nx=True)
    if not claimed:
        return HttpResponse(status=200)
    record_payout(json.loads(request.body)["data"]["object"])
    return HttpResponse(status=200)
