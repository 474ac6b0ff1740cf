-- A Rails `structure.sql` written by pg_dump, with COPY data blocks: the rows
-- between `COPY ... FROM stdin;` and `\.` are data, not SQL, so the `;` and
-- quotes inside them must not cut or swallow the unique indexes that follow.
SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: idempotency_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.idempotency_keys (
    id bigint NOT NULL,
    user_id bigint NOT NULL,
    idempotency_key character varying NOT NULL,
    request_method character varying NOT NULL,
    request_path character varying NOT NULL,
    request_params jsonb NOT NULL,
    response_code integer,
    response_body jsonb,
    recovery_point character varying NOT NULL,
    locked_at timestamp without time zone DEFAULT now(),
    created_at timestamp(6) without time zone NOT NULL,
    updated_at timestamp(6) without time zone NOT NULL
);


ALTER TABLE public.idempotency_keys OWNER TO postgres;

--
-- Name: idempotency_keys_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.idempotency_keys_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: idempotency_keys_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.idempotency_keys_id_seq OWNED BY public.idempotency_keys.id;

CREATE TABLE public.processed_stripe_events (
    id bigint NOT NULL,
    stripe_event_id character varying NOT NULL,
    created_at timestamp(6) without time zone NOT NULL
);

CREATE TABLE public.schema_migrations (
    version character varying NOT NULL
);

ALTER TABLE ONLY public.idempotency_keys ALTER COLUMN id SET DEFAULT nextval('public.idempotency_keys_id_seq'::regclass);

--
-- Data for Name: schema_migrations; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.schema_migrations (version) FROM stdin;
20240101000000
20240102000000
\.

COPY public.processed_stripe_events (id, stripe_event_id, created_at) FROM stdin;
1	evt_1; DROP INDEX index_processed_stripe_events_on_stripe_event_id;	2024-01-01 00:00:00
2	it's an 'odd' $$ row	2024-01-01 00:00:00
\.

ALTER TABLE ONLY public.idempotency_keys
    ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.processed_stripe_events
    ADD CONSTRAINT processed_stripe_events_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);

CREATE UNIQUE INDEX index_idempotency_keys_on_user_id_and_idempotency_key ON public.idempotency_keys USING btree (user_id, idempotency_key);

CREATE UNIQUE INDEX index_processed_stripe_events_on_stripe_event_id ON public.processed_stripe_events USING btree (stripe_event_id);

SET search_path TO "$user", public;

INSERT INTO "schema_migrations" (version) VALUES
('20240103000000'),
('20240104000000');
