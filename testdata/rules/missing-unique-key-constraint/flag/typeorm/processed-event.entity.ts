import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from "typeorm";

// No name given: TypeORM's default naming makes the table `processed_event`.
// The event's id is indexed for lookups, not guarded.
@Entity()
export class ProcessedEvent { // expect: missing-unique-key-constraint
  @PrimaryGeneratedColumn("uuid")
  id: string;

  @Index()
  @Column({ name: "event_id" })
  eventId: string;

  @Column({ type: "jsonb", nullable: true })
  payload: unknown;

  @CreateDateColumn({ name: "created_at" })
  createdAt: Date;
}
