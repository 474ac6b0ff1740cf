const { DataTypes } = require("sequelize");

// The provider's event id is stored but nothing makes it unique.
module.exports = (sequelize) =>
  sequelize.define(
    "WebhookEvent",
    {
      eventId: { type: DataTypes.STRING, allowNull: false, field: "event_id" },
      payload: { type: DataTypes.JSONB },
    },
    { tableName: "webhook_events" }, // expect: missing-unique-key-constraint
  );
