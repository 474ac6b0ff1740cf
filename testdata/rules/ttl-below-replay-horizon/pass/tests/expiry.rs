// Integration test: a one-second TTL on a Stripe event key, to watch it go.
use redis::AsyncCommands;

#[tokio::test]
async fn stripe_event_keys_expire() {
    let client = redis::Client::open("redis://127.0.0.1/").unwrap();
    let mut con = client.get_multiplexed_async_connection().await.unwrap();
    let _: () = con.set_ex("idem:stripe:evt_1", 1, 1).await.unwrap();
}
