import { Column, Entity, Index, PrimaryGeneratedColumn } from "typeorm";

@Entity("processed_events")
export class ProcessedEvent {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: "event_id", unique: true })
  eventId: string;
}

@Entity({ name: "webhook_receipts" })
@Index(["provider", "eventId"], { unique: true })
export class WebhookReceipt {
  @PrimaryGeneratedColumn("uuid")
  id: string;

  @Column()
  provider: string;

  @Column({ name: "event_id" })
  eventId: string;
}
