mod transfers;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let app = transfers::router().await?;
    let listener = tokio::net::TcpListener::bind("0.0.0.0:8080").await?;
    axum::serve(listener, app).await?;
    Ok(())
}
