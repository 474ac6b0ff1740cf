from datetime import timedelta

import redis
import stripe
from django.conf import settings
from django.core.cache import cache
from django.http import HttpResponse
from django.views.decorators.csrf import csrf_exempt

from .fulfilment import fulfil_checkout, record_payout

# Stripe resends undelivered events for 30 days; keep the claim longer.
DEDUP_WINDOW = timedelta(days=45)
r = redis.Redis.from_url(settings.REDIS_URL)


@csrf_exempt
def stripe_webhook(request):
    try:
        event = stripe.Webhook.construct_event(
            request.body, request.META["HTTP_STRIPE_SIGNATURE"], settings.STRIPE_WEBHOOK_SECRET
        )
    except (ValueError, stripe.error.SignatureVerificationError):
        return HttpResponse(status=400)

    if not cache.add(f"stripe:evt:{event.id}", 1, timeout=60 * 60 * 24 * 45):
        return HttpResponse(status=200)
    if event.type == "checkout.session.completed":
        fulfil_checkout(event.data.object)
    # A short-lived lock while the checkout is fulfilled, not the dedup record.
    cache.set(f"lock:checkout:{event.id}", 1, timeout=30)
    return HttpResponse(status=200)


@csrf_exempt
def stripe_payout_webhook(request):
    event = stripe.Webhook.construct_event(
        request.body, request.headers.get("Stripe-Signature"), settings.STRIPE_CONNECT_SECRET
    )
    claimed = r.set(f"stripe:payout-event:{event['id']}", "1", ex=DEDUP_WINDOW, nx=True)
    if not claimed:
        return HttpResponse(status=200)
    record_payout(event.data.object)
    # The dashboard's cached balance: an hour is plenty, not a dedup store.
    r.setex(f"balance:{event.data.object.destination}", 3600, "stale")
    return HttpResponse(status=200)
