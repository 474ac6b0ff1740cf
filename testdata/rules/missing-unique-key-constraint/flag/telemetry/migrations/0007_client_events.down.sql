DROP TABLE IF EXISTS client_events;
