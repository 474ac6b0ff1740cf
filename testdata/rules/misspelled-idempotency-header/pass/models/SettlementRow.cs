using System.ComponentModel.DataAnnotations.Schema;
using System.Text.Json.Serialization;

[Table("Idempotency_Keys")]
public class SettlementRow
{
    [Column("Idempotency_Key")]
    [JsonPropertyName("Idempotency_Key")]
    public string IdempotencyKey { get; set; } = "";
}
