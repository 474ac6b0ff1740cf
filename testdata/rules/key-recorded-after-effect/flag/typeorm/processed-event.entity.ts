import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from "typeorm";

@Entity("processed_events")
export class ProcessedEvent {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: "event_id", unique: true })
  eventId: string;

  @Column({ name: "refund_id", nullable: true })
  refundId: string;

  @CreateDateColumn({ name: "created_at" })
  createdAt: Date;
}
