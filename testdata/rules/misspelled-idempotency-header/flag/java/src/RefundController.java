package com.example.payments;

import org.springframework.web.bind.annotation.*;

@RestController
public class RefundController {
    @PostMapping("/refunds")
    public Refund create(@RequestHeader("Idempotancy-Key") String key, @RequestBody RefundRequest req) { // expect: misspelled-idempotency-header
        return refunds.create(key, req);
    }
}
