package com.example.payments.idempotency;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.persistence.*;

// Mirrors the mainframe settlement table, whose columns are capitalised.
@Entity
@Table(name = "Idempotency_Keys")
public class IdempotencyRecord {
    @Id
    @Column(name = "Idempotency_Key", nullable = false, unique = true, length = 255)
    @JsonProperty("Idempotency_Key")
    private String idempotencyKey;

    @Column(name = "Response_Body")
    private String responseBody;
}
