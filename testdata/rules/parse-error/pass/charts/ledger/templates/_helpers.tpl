{{- define "ledger.fullname" -}}
{{- printf "%s-idempotency-ledger" .Release.Name | trunc 63 | trimSuffix "-" }}
{{- end }}
