const { Model, DataTypes } = require("sequelize");

class InboxMessage extends Model {}

InboxMessage.init(
  {
    messageId: { type: DataTypes.STRING, allowNull: false },
    body: DataTypes.TEXT,
  },
  {
    sequelize,
    tableName: "inbox_messages",
    indexes: [{ unique: true, fields: ["messageId"] }],
  },
);

module.exports = (sequelize) =>
  sequelize.define("WebhookEvent", {
    eventId: { type: DataTypes.STRING, unique: true },
  });
