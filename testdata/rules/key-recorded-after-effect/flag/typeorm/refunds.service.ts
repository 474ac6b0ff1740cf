import Stripe from "stripe";
import { DataSource } from "typeorm";
import { ProcessedEvent } from "./processed-event.entity";

const stripe = new Stripe(process.env.STRIPE_SECRET_KEY ?? "");

// The dispute's refund is made before the event is recorded through the
// entity's repository: a redelivery in between refunds again.
export async function refundDisputedCharge(dataSource: DataSource, event: Stripe.Event) {
  const charge = event.data.object as Stripe.Charge;
  const refund = await stripe.refunds.create({ charge: charge.id });
  await dataSource.getRepository(ProcessedEvent).insert({ eventId: event.id, refundId: refund.id }); // expect: key-recorded-after-effect
}
