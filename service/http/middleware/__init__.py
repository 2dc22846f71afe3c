"""What every request passes through around its route: guards, rate limits, the request hooks (request id,
CORS, access log, metrics) as the steps of one pipeline."""
